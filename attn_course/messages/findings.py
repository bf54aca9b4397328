"""Messages of the findings a visible check and the grader share (attn_course.findings, attn_course.judging): a size
read from the notebook, a case of other sizes or dtype, a gradient, a copy's side effect; and the visible check's own
wording ("check_…") of a verdict the grader words as its hidden test's ("hidden_…", in attn_grader.messages)."""

MESSAGES = {
    "hint_global_size": {
        "ja": "関数の中で、ノートブックのセルで決めた大きさ {names} をそのまま読んでいます。その値と同じ大きさの入力でしか正しくなりません。大きさは引数や入力の形状（x.shape）から求めてください。",
        "ko": "함수가 노트북 셀에서 정한 크기 {names}을(를) 그대로 읽고 있습니다. 그 값과 크기가 같은 입력에서만 올바르게 동작합니다. 크기는 인자나 입력의 모양(x.shape)에서 구하세요.",
    },
    "global_size_read": {
        "ja": "関数の中で、ノートブックのセルで決めた名前 {names} を読んでいます。いまはその値のおかげでたまたま正しい結果になっていますが、採点ではセルを上から順に実行するので、その名前がまだ定義されていないか、別の値になっていることがあります。",
        "ko": "함수가 노트북 셀에서 정한 이름 {names}을(를) 읽고 있습니다. 지금은 그 값 덕분에 우연히 올바른 결과가 나오지만, 채점에서는 셀을 위에서부터 차례로 실행하므로 그 이름이 아직 없거나 다른 값을 가리킬 수 있습니다.",
    },
    "hint_name_not_defined": {
        "ja": "関数の中で、定義されていない名前を読んでいます（NameError）。採点ではセルを上から順に実行するので、後ろのセルで決める名前や、後ろのセルのループで決まる名前は、関数を呼ぶ時点ではまだありません。大きさは引数や入力の形状（x.shape など）から求め、名前の書き間違いがないかも確かめてください。",
        "ko": "함수 안에서 정의되지 않은 이름을 읽고 있습니다(NameError). 채점에서는 셀을 위에서부터 차례로 실행하므로, 아래쪽 셀이나 반복문에서 정한 이름은 함수가 실행될 때 아직 없습니다. 크기는 인자나 입력의 모양(x.shape 등)에서 구하고, 이름을 잘못 쓰지 않았는지도 확인하세요.",
    },
    "hint_copy_shares_memory_into": {
        "ja": "パラメータに = で nn.Parameter(元の重み) や元のパラメータを代入したり、.data を差し替えたりすると、元と同じメモリを指します。with torch.no_grad(): の中で、{target} のパラメータに copy_ で値を書き込んでください。",
        "ko": "파라미터에 =로 nn.Parameter(원본 가중치)나 원본 파라미터를 대입하거나 .data를 바꿔 넣으면 원본과 같은 메모리를 가리킵니다. with torch.no_grad(): 안에서 {target}의 파라미터에 copy_로 값을 쓰세요.",
    },
    "copy_target_unchanged": {
        "ja": "{name} が返したモジュールは正しいのですが、引数の {target} そのものには値が書き込まれていません。",
        "ko": "{name}이(가) 반환한 모듈은 올바르지만, 인자로 넘긴 {target} 자체에는 값이 복사되지 않았습니다.",
    },
    "hint_copy_into_target": {
        "ja": "新しいモジュールを作ったり copy.deepcopy で複製したりして、そちらに書き込んでいませんか。この演習の関数は、渡された {target} のパラメータをその場で書き換えて、その {target} 自身を返します（呼び出す側は、そのあとも {target} を使い続けます）。",
        "ko": "새 모듈을 만들거나 copy.deepcopy로 복제해서 그쪽에 값을 복사하지 않았나요? 이 연습 문제의 함수는 넘겨받은 {target}의 파라미터에 값을 써 넣고, 그 {target}을(를) 그대로 반환해야 합니다(호출하는 쪽은 {target}을(를) 계속 씁니다).",
    },
    "sizes_case_shape": {
        "ja": "{name}: 大きさ {sizes} の入力で、形状が {got} になりました（正しくは {want}）。上の大きさでは正しかったので、どこかで大きさを決め打ちしていないか確かめてください。",
        "ko": "{name}: 크기 {sizes}인 입력에서 모양이 {got}이(가) 되었습니다(올바른 모양은 {want}). 앞의 크기에서는 올바랐으므로, 어딘가에 크기를 고정해 두지 않았는지 확인하세요.",
    },
    "case_dtype": {
        "ja": "{name}: データ型 {want} の入力に、データ型 {got} の結果を返しました。結果は入力と同じデータ型で返してください。",
        "ko": "{name}: 자료형이 {want}인 입력에 자료형이 {got}인 결과를 반환했습니다. 결과는 입력과 같은 자료형으로 반환하세요.",
    },
    "hint_keep_dtype": {
        "ja": "途中で .float() や .double() を呼ぶと、データ型が変わります。また、torch.tensor(…) や torch.zeros(…) などで dtype= を指定せずに作ったテンソルは、既定の float32 になります。新しく作るテンソルは、dtype=x.dtype を指定して（または torch.zeros_like(x) などを使って）入力のデータ型にそろえてください。",
        "ko": ".float()나 .double()은 도중에 자료형을 바꿉니다. 또 torch.tensor(…), torch.zeros(…) 등으로 dtype=을 지정하지 않고 만든 텐서는 float32가 됩니다. 새로 만드는 텐서는 dtype=x.dtype(또는 torch.zeros_like(x) 등)으로 입력에 맞추세요.",
    },
    "grad_none": {
        "ja": "{name} が返した値から勾配が逆伝播しません。返した値（のどれか）が計算グラフから切り離されています。",
        "ko": "{name}이(가) 반환한 값에서 기울기가 역전파되지 않습니다. 반환한 값(중 하나)이 계산 그래프에서 끊겨 있습니다.",
    },
    "grad_missing": {
        "ja": "{name} の出力から {arg} まで勾配が届きません（逆伝播したあとも {arg} の勾配が None のままです）。",
        "ko": "{name}의 출력에서 {arg}까지 기울기가 전달되지 않습니다(역전파한 뒤에도 {arg}의 기울기가 None입니다).",
    },
    "grad_differs": {
        "ja": "{name} の出力の、{arg} についての勾配が正しい値と一致しません（最大誤差 {err:.3g}）。",
        "ko": "{name} 출력의 {arg}에 대한 기울기가 올바른 값과 일치하지 않습니다(최대 오차 {err:.3g}).",
    },
    "hint_grad_cut": {
        "ja": "detach()、.data、with torch.no_grad(): の中の計算は、そこで勾配を止めます。このコードは学習のときにも通る（第5回・第6回）ので、値の計算では使わないでください。",
        "ko": "detach(), .data, with torch.no_grad(): 안의 계산은 거기서 기울기를 끊습니다. 이 코드는 학습할 때도 거치므로(5강, 6강) 값을 계산하는 데에는 쓰지 마세요.",
    },
    "copy_source_changed": {
        "ja": "{name} を呼んだら、コピー元のモジュールのパラメータ {param} が書き換わりました。",
        "ko": "{name}을(를) 호출하자 복사 원본 모듈의 파라미터 {param}이(가) 바뀌었습니다.",
    },
    "hint_copy_direction": {
        "ja": "copy_ の向きが逆です。a.copy_(b) は b の値を a に書き込みます。コピー先.copy_(コピー元) の順に書いてください（逆向きだと元のモジュールが上書きされ、両方が同じ値になるので一致して見えます）。",
        "ko": "copy_의 방향이 반대입니다. a.copy_(b)는 b의 값을 a에 씁니다. 복사 대상.copy_(복사 원본) 순서로 쓰세요(반대로 쓰면 원본 모듈이 덮어써져 둘이 같은 값이 되므로 일치하는 것처럼 보입니다).",
    },
    "copy_shares_memory": {
        "ja": "{name} が返したモジュールのパラメータ {param} が、コピー元のモジュールとメモリを共有しています。片方を学習すると、もう片方も変わります。",
        "ko": "{name}이(가) 반환한 모듈의 파라미터 {param}이(가) 복사 원본 모듈과 메모리를 공유합니다. 한쪽을 학습하면 다른 쪽도 바뀝니다.",
    },
    "copy_not_trainable": {
        "ja": "{name} が返したモジュールのパラメータ {param} は、学習できません（勾配を記録しない設定になっているか、コピー元の重み行列から計算した値になっています）。",
        "ko": "{name}이(가) 반환한 모듈의 파라미터 {param}은(는) 학습할 수 없습니다(기울기를 기록하지 않게 설정되어 있거나, 복사 원본의 가중치 행렬에서 계산된 값입니다).",
    },
    "hint_copy_trainable": {
        "ja": "requires_grad_(False) などで勾配を記録しない設定にすると、そのモジュールは学習できません。その状態で、勾配を記録するコピー元から copy_ すると、パラメータはコピー元の重み行列から計算した値になり、逆伝播がコピー元まで届きます。requires_grad はそのままにして、with torch.no_grad(): の中で copy_ してください（with torch.no_grad(): の中なら、学習するパラメータにも値を書き込めて、その書き込みは勾配の計算に記録されません）。",
        "ko": "requires_grad_(False) 등으로 기울기를 끄면 그 모듈은 학습할 수 없습니다. 그 상태에서 torch.no_grad() 밖에서 copy_하면 파라미터가 복사 원본의 가중치 행렬에서 계산된 값이 되어, 역전파가 복사 원본까지 이어집니다. requires_grad는 그대로 두고 with torch.no_grad(): 안에서 copy_하세요(with torch.no_grad(): 안에서는 학습할 파라미터에도 값을 쓸 수 있고, 그 쓰기는 기울기 계산에 기록되지 않습니다).",
    },
    "hint_copy_shares_memory": {
        "ja": "パラメータに = で nn.Parameter(元の重み) や元のパラメータを代入したり、.data を差し替えたりすると、元と同じメモリを指します。with torch.no_grad(): の中で、自分のモジュールのパラメータに copy_ で値を書き込んでください。",
        "ko": "파라미터에 =로 nn.Parameter(원본 가중치)나 원본 파라미터를 대입하거나 .data를 바꿔 넣으면 원본과 같은 메모리를 가리킵니다. with torch.no_grad(): 안에서 자기 모듈의 파라미터에 copy_로 값을 쓰세요.",
    },
    "case_float64": {"ja": "float64 の入力", "ko": "float64 입력"},
    "case_float32": {"ja": "float32 の入力", "ko": "float32 입력"},
    "case_grad": {"ja": "勾配", "ko": "기울기"},
    "why_missing_value": {"ja": "「{key}」がありません", "ko": "'{key}' 항목이 없습니다"},
    "why_not_decodable": {"ja": "「{key}」の形式が正しくありません", "ko": "'{key}'의 형식이 올바르지 않습니다"},
    "case_unbatched": {"ja": "バッチの軸がない入力", "ko": "배치 축이 없는 입력"},
    # A KV cache's chunk (judging.cache_step), in the check and the grader alike.
    "case_cache_tokens": {
        "ja": "{name}（{sizes}）の、位置 {lo}〜{last} のトークンの出力",
        "ko": "{name}({sizes})의 위치 {lo}~{last} 토큰 출력",
    },
    "case_cache_token": {
        "ja": "{name}（{sizes}）の、位置 {lo} のトークンの出力",
        "ko": "{name}({sizes})의 위치 {lo} 토큰 출력",
    },
    "case_cache_part": {
        "ja": "{name} に {n} 個のトークンを渡したあとのキャッシュの {part}",
        "ko": "{name}에 토큰 {n}개를 넘긴 뒤 캐시의 {part}",
    },
    "check_mismatch": {
        "ja": "{case}で、正しい結果と一致しません（最大誤差 {err:.3g}）。",
        "ko": "{case}에서 올바른 결과와 일치하지 않습니다(최대 오차 {err:.3g}).",
    },
    "check_shape": {
        "ja": "{case}で、結果の形状が違います。{want} のはずが {got} になっています。",
        "ko": "{case}에서 결과의 모양이 다릅니다. 올바른 모양은 {want}인데 지금은 {got}입니다.",
    },
    "check_dtype": {
        "ja": "{case}で、入力が {want} なのに結果が {got} になりました。途中でデータ型を変えないでください。",
        "ko": "{case}에서 입력은 {want}인데 결과는 {got}입니다. 중간에 자료형을 바꾸지 마세요.",
    },
    "check_not_tensor": {
        "ja": "{case}で、torch.Tensor が返るはずのところに {kind} が返りました。",
        "ko": "{case}에서 반환값은 torch.Tensor여야 합니다(지금은 {kind}).",
    },
    "check_not_tuple": {
        "ja": "{case}で、値を{n}つ（タプルで）返すはずのところに、{kind} が返りました。",
        "ko": "{case}에서 값 {n}개를 튜플로 반환해야 합니다(지금은 {kind}).",
    },
    "check_device": {
        "ja": "{case}で、入力は {want} にあるのに、結果が {got} のテンソルになりました。",
        "ko": "{case}에서 입력은 {want}에 있는데 결과는 {got}에 있습니다.",
    },
    "check_layout": {
        "ja": "パラメータの名前や形状が、この演習のモジュールと違います。正しいもの: {want} / あなたのモジュール: {got}",
        "ko": "파라미터의 이름이나 모양이 이 연습 문제의 모듈과 다릅니다. 올바른 것: {want} / 내 모듈: {got}",
    },
    "check_results_unreadable": {
        "ja": "チェックが、このセルの結果を読み取れませんでした（{why}）。",
        "ko": "검사가 이 셀의 결과를 읽을 수 없었습니다({why}).",
    },
    "check_cache_shape": {
        "ja": "{name} に {n} 個のトークンを渡したあとのキャッシュ (k, v) の形状は、どちらも (B, H, {n}, D) = {want} になるはずです（いまは {got}）。",
        "ko": "{name}에 토큰 {n}개를 넘긴 뒤 캐시 (k, v)의 모양은 둘 다 (B, H, {n}, D)여야 합니다. 기대한 모양은 {want}, 지금은 {got}입니다.",
    },
}
